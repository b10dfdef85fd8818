/** Cities and neighbourhoods of the demo catalog, with real-world centre coordinates. */
import type { Currency } from '../domain/money.js';

export interface Area {
  name: string;
  nameAr: string;
  lat: number;
  lng: number;
  streets: string[];
}

export interface City {
  name: string;
  country: string;
  timeZone: string;
  currency: Currency;
  areas: Record<string, Area>;
}

const area = (name: string, nameAr: string, lat: number, lng: number, streets: string[]): Area => ({
  name,
  nameAr,
  lat,
  lng,
  streets,
});

export const KUWAIT: City = {
  name: 'Kuwait City',
  country: 'KW',
  timeZone: 'Asia/Kuwait',
  currency: 'KWD',
  areas: {
    sharq: area('Sharq', 'شرق', 29.379, 47.992, [
      'Ahmad Al Jaber St',
      'Khalid Bin Al Waleed St',
      'Jaber Al Mubarak St',
    ]),
    qibla: area('Qibla', 'القبلة', 29.3697, 47.97, ['Fahad Al Salem St', 'Ali Al Salem St']),
    salmiya: area('Salmiya', 'السالمية', 29.3339, 48.0761, [
      'Salem Al Mubarak St',
      'Hamad Al Mubarak St',
      'Baghdad St',
    ]),
    hawalli: area('Hawalli', 'حولي', 29.3328, 48.0286, ['Tunis St', 'Beirut St', 'Ibn Khaldoun St']),
    jabriya: area('Jabriya', 'الجابرية', 29.3167, 48.0333, ['Block 1A, Street 101', 'Block 10, Street 4']),
    rumaithiya: area('Rumaithiya', 'الرميثية', 29.3117, 48.0747, ['Block 6, Street 20', 'Mohammad Bin Al Qasim St']),
    mishref: area('Mishref', 'مشرف', 29.2717, 48.07, ['Block 3, Street 1', 'Block 5, Street 6']),
    salwa: area('Salwa', 'سلوى', 29.295, 48.08, ['Block 12, Street 1', 'Al Rumaithiya Rd']),
    surra: area('Surra', 'السرة', 29.3139, 47.99, ['Block 4, Street 11', 'Damascus St']),
    shuwaikh: area('Shuwaikh', 'الشويخ', 29.35, 47.945, ['Canada Dry St', 'Street 42']),
    dasma: area('Dasma', 'الدسمة', 29.365, 48.0, ['Block 2, Street 14']),
    'bneid-al-gar': area('Bneid Al Gar', 'بنيد القار', 29.375, 48.005, ['Istiqlal St', 'Block 1, Street 5']),
    kaifan: area('Kaifan', 'كيفان', 29.339, 47.962, ['Block 4, Street 45', 'Abdullah Al Salem Rd']),
  },
};

export const DUBAI: City = {
  name: 'Dubai',
  country: 'AE',
  timeZone: 'Asia/Dubai',
  currency: 'AED',
  areas: {
    marina: area('Dubai Marina', 'دبي مارينا', 25.0805, 55.1403, ['Marina Walk', 'Al Marsa St']),
    jlt: area('Jumeirah Lake Towers', 'أبراج بحيرات جميرا', 25.0693, 55.1413, ['Cluster D', 'Cluster T', 'Cluster Y']),
    jbr: area('JBR', 'جميرا بيتش ريزيدنس', 25.078, 55.134, ['The Walk', 'Rimal 2']),
    downtown: area('Downtown Dubai', 'وسط مدينة دبي', 25.1972, 55.2744, [
      'Mohammed Bin Rashid Blvd',
      'Sheikh Zayed Rd',
    ]),
    'business-bay': area('Business Bay', 'الخليج التجاري', 25.1865, 55.265, ['Marasi Dr', 'Al Abraj St']),
    difc: area('DIFC', 'مركز دبي المالي العالمي', 25.213, 55.282, ['Gate Avenue', 'Al Mustaqbal St']),
    'al-barsha': area('Al Barsha', 'البرشاء', 25.1125, 55.196, ['Al Barsha 1, Street 15', 'Umm Suqeim St']),
    deira: area('Deira', 'ديرة', 25.2711, 55.3075, ['Al Rigga St', 'Baniyas Rd', 'Al Muraqqabat St']),
    'bur-dubai': area('Bur Dubai', 'بر دبي', 25.2532, 55.297, ['Al Fahidi St', 'Khalid Bin Al Waleed Rd']),
    karama: area('Al Karama', 'الكرامة', 25.245, 55.303, ['Kuwait St', 'Sheikh Hamdan Colony St']),
    jumeirah: area('Jumeirah', 'جميرا', 25.2048, 55.249, ['Jumeirah Beach Rd', 'Al Wasl Rd']),
    'al-quoz': area('Al Quoz', 'القوز', 25.139, 55.227, ['Alserkal Avenue', 'Street 8']),
    mirdif: area('Mirdif', 'مردف', 25.22, 55.42, ['Algeria St', 'Tripoli St']),
    'silicon-oasis': area('Dubai Silicon Oasis', 'واحة دبي للسيليكون', 25.1218, 55.3773, [
      'Oasis Centre Rd',
      'Cedre Villas St',
    ]),
    'al-nahda': area('Al Nahda', 'النهدة', 25.29, 55.37, ['Amman St', 'Al Nahda St 2']),
    palm: area('Palm Jumeirah', 'نخلة جميرا', 25.1124, 55.139, ['Golden Mile', 'Shoreline Apartments']),
  },
};
